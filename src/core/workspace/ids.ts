// Scope, leaf and wave ids (docs/formats.md#ids): one pattern for every id kbz accepts.

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SCOPE_ID_MESSAGE = "scope must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/ and cannot be . or ..";

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id) && id !== "." && id !== "..";
}
