package store

// SetSealHook sets a func the sealer runs between reading a round's
// records and handing their blocks to the committer, until the returned
// func runs.
func SetSealHook(f func()) (restore func()) {
	old := sealHook
	sealHook = f
	return func() { sealHook = old }
}
