package store

import "errors"

// ErrLocked is returned (wrapped, with the file's path) by Open when another
// process holds the data file. bbolt allows one writer process per file.
var ErrLocked = errors.New("data file is in use by another process")
