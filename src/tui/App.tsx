// The dashboard: the container (state, actions, effects) around the screen.
import { DashboardProvider, type AppProps } from "./container.tsx";
import { Screen } from "./Screen.tsx";

export { PANELS, type PanelId } from "./keys.ts";
export { FLASH_MS, type AppProps } from "./container.tsx";

export function App(props: AppProps) {
  return (
    <DashboardProvider {...props}>
      <Screen />
    </DashboardProvider>
  );
}
