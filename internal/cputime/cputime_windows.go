package cputime

import (
	"time"

	"golang.org/x/sys/windows"
)

// Self returns this process's user and kernel CPU time so far, or 0 when
// the system does not say.
func Self() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user) != nil {
		return 0
	}
	return ticks(kernel) + ticks(user)
}

// ticks converts a FILETIME that holds a duration (in 100 ns ticks, not a
// time since 1601) to a time.Duration.
func ticks(ft windows.Filetime) time.Duration {
	return time.Duration(uint64(ft.HighDateTime)<<32|uint64(ft.LowDateTime)) * 100
}
