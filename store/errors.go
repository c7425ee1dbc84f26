package store

import "errors"

// ErrLocked is returned (wrapped, with the file's path) by Open when another
// process holds the data file. bbolt allows one writer process per file.
var ErrLocked = errors.New("data file is in use by another process")

// ErrInconsistent is returned (wrapped, naming every counter that differs)
// by Check when a counter kept by hand disagrees with the records.
var ErrInconsistent = errors.New("counters disagree with the records")
