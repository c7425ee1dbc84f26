package main

import (
	"errors"
	"syscall"
)

// diskFull reports whether err says the disk, or the user's quota, is full:
// serve then starts all the same, read-only in effect (appends answer
// errors until there is room), so the log can still be read.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
