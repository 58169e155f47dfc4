// One path segment of an INPUTS glob (`*` any run of characters, `?` one character, both within
// the segment) matched in linear time (issue 40): no regular expression, so no backtracking. The
// pattern splits at its stars into literal pieces (`?` matching any one character); the first
// piece must start the name, the last must end it, and each piece between is taken at its
// leftmost place after the previous one (leftmost is never worse: a later place leaves less
// room). Each piece is tried at each place at most once: at most name x pattern steps in all,
// 4,096 x 20 for the worst name a file system allows, against the exponential search of the
// regular expression `src/*a*a*…*b` became before.

/** `piece` (with `?` for any character) at `at` in `name`. */
function pieceAt(piece: string, name: string, at: number): boolean {
  for (let k = 0; k < piece.length; k++) {
    const p = piece.charCodeAt(k);
    const c = name.charCodeAt(at + k);
    if (p === 63 /* ? */ ? c === 47 /* / */ : p !== c) return false;
  }
  return true;
}

/** Whether the glob segment `pattern` matches the whole of `name`. */
export function matchSegment(pattern: string, name: string): boolean {
  const pieces = pattern.split("*");
  const first = pieces[0]!;
  if (pieces.length === 1) return name.length === first.length && pieceAt(first, name, 0);
  const last = pieces[pieces.length - 1]!;
  const end = name.length - last.length;
  if (end < first.length || !pieceAt(first, name, 0) || !pieceAt(last, name, end)) return false;
  let pos = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    if (piece === "") continue;
    let at = pos;
    while (at + piece.length <= end && !pieceAt(piece, name, at)) at++;
    if (at + piece.length > end) return false;
    pos = at + piece.length;
  }
  return true;
}
