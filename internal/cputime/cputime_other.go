//go:build !unix && !windows

package cputime

import "time"

// Self returns 0: this platform does not say.
func Self() time.Duration { return 0 }
