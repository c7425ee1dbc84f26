package store

// SealNow seals every whole block's worth of loose records now, with S2
// when fast, else zstd, as the sealer does during a burst or once appends
// pause: the salvage tests build the same layout at every run, whatever
// pauses a loaded machine gives the background sealer.
func (d *DB) SealNow(fast bool) { d.sealAll(fast) }
