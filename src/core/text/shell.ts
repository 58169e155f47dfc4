// Shell words: the one quoting function for every command kbz writes or prints (hook commands,
// shims, the commands of its advice), and its inverse for the commands it reads back.

/** POSIX single-quote quoting: the word survives `sh -c`, `bash -c` and `$SHELL -lc` unchanged. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9@%_+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words of a POSIX command string as `sh` would split it, for the quoting we write (and plain words). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return [...words, cur + command.slice(i + 1)];
      cur += command.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      const end = command.indexOf('"', i + 1);
      if (end < 0) return [...words, cur + command.slice(i + 1)];
      cur += command.slice(i + 1, end).replace(/\\(["\\$`])/g, "$1");
      i = end;
      inWord = true;
    } else if (c === "\\" && i + 1 < command.length) {
      cur += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}
