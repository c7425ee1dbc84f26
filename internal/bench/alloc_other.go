//go:build !unix

package bench

import "io/fs"

// allocated returns the file's size: this platform's os.Stat does not say
// how much of it is allocated.
func allocated(fi fs.FileInfo) int64 { return fi.Size() }
