// npm links every dependency's bins into node_modules/.bin, which npm puts first on PATH for
// `npm start`, `npm test` and every script. The `node16` devDependency (npm:node@16, for the Node
// 16 fallback hook's tests, which use it by its explicit path) has a bin named `node`: linked,
// every `node …` CHECK run under npm would run on Node 16 instead of the user's own node. This
// removes that one link (and its Windows shims). Silent; plain CommonJS so any Node runs it.
"use strict";
var fs = require("node:fs");
var path = require("node:path");

var bin = path.join(__dirname, "..", "node_modules", ".bin");
var ours = path.join(__dirname, "..", "node_modules", "node16");
["node", "node.cmd", "node.ps1"].forEach((name) => {
  var link = path.join(bin, name);
  var target;
  try {
    target = fs.readlinkSync(link);
  } catch {
    // Not a symlink: a Windows shim names its target inside; anything else is not ours.
    try {
      if (fs.readFileSync(link, "utf8").indexOf("node16") === -1) return;
    } catch {
      return;
    }
    fs.unlinkSync(link);
    return;
  }
  if (path.resolve(bin, target).indexOf(ours + path.sep) === 0) fs.unlinkSync(link);
});
