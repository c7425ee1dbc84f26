package store

import "time"

// SetRoomPoll sets how often a store that met a full disk looks for room
// again (compact_room.go), until the returned func runs. Set it before
// opening the stores it applies to.
func SetRoomPoll(d time.Duration) (restore func()) {
	old := roomPoll
	roomPoll = d
	return func() { roomPoll = old }
}
