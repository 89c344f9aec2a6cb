/** Debian's Chromium, which the report's browser tests open (`.ci/run` installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, sandbox-free (CI runs as root) and quiet: no first-run, sync, update or background traffic. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
