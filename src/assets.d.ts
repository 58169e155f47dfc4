// Text assets embedded in the binary with `import x from "./file.md" with { type: "text" }`.
declare module "*.md" {
  const text: string;
  export default text;
}
