// Package atomicfile replaces a small file whole: readers, and a process
// that starts after a crash, see either the old content or the new, never
// half of it.
//
//	b, _ := json.Marshal(state)
//	if err := atomicfile.WriteFile(path, b, 0o600); err != nil { ... }
//
// The data goes to a temporary file beside path (same directory, so the
// same file system), which is synced and then renamed over path; rename
// within one directory is atomic on the systems mcplogd runs on. WriteFile
// also syncs the directory, so the rename itself survives a power cut:
// without it the new name may be lost and the old content come back after
// a restart, which for a journal of what was sent means sending twice, and
// for a token means a client holding one the server no longer knows.
// Replace is the same without either sync, for files that are cheap to be
// wrong about and written often (the search index's watermark).
//
// Several packages wrote this sequence by hand, each with a different
// subset of the syncs; it lives here once, under internal because it is
// not part of mcplogd's API.
package atomicfile
