/** What the program's global options say about the Temporal connection; unset means "ask the environment and the profile". */
export interface ConnectionOverrides {
  address?: string;
  namespace?: string;
  profileName?: string;
  configFile?: string;
}

let current: ConnectionOverrides = {};

/** Called once per run, before the action, so command modules connect without passing the options along. */
export function setConnectionOverrides(overrides: ConnectionOverrides): void {
  current = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined && value !== ''));
}

export function connectionOverrides(): ConnectionOverrides {
  return current;
}
