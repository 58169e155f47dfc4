// Theme and layout reach every component through context instead of being threaded by hand:
// the App provides the terminal's theme and the body's box; a pane that splits its box
// provides each part's size to what it renders (`<Box_ rows={…}>`).
import { createContext, useContext, type ReactNode } from "react";
import { makeTheme, type Theme } from "./theme.ts";

export interface Ui {
  theme: Theme;
  /** Columns and rows of the box the component draws in. */
  width: number;
  height: number;
}

const UiContext = createContext<Ui>({ theme: makeTheme({}), width: 80, height: 20 });

export function useUi(): Ui {
  return useContext(UiContext);
}

/** Provide a theme and a box; fields left out keep the enclosing ones. */
export function UiProvider({ theme, width, height, children }: Partial<Ui> & { children: ReactNode }) {
  const outer = useContext(UiContext);
  const ui: Ui = { theme: theme ?? outer.theme, width: width ?? outer.width, height: height ?? outer.height };
  return <UiContext.Provider value={ui}>{children}</UiContext.Provider>;
}
