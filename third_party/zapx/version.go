package zap

// Upstream is the zapx/v17 release this package is, with mcplogd's change
// (upstream.patch) applied; scripts/zapx-update moves it to another.
const Upstream = "v17.2.5"
