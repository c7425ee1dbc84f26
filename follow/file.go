package follow

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// file is the open file being read.
type file struct {
	f        *os.File
	path     string // the name it was opened by
	pathJSON []byte // path as a JSON string
	dev, ino uint64
	head     []byte     // its first up to headSize bytes
	id       string     // fileID(dev, ino, head)
	read     int64      // the offset of the next read
	lines    lineCutter // the unterminated last line, its head when cut
	stored   int64      // the end of the last entry appended
	size     int64      // its size when last looked at
	mtime    time.Time
	// quietAt is mtime when passes began to find nothing new to read
	// (quiet): two later passes that find it changed, the same way, and
	// the size the same saw the file written again with the same bytes (a
	// launch that fails as the last one did, into a log it rewrites). The
	// second is the proof: a write under way changes mtime before size.
	quietAt, changedAt time.Time
	quiet              bool
	// tail holds the tailN bytes just before read, as read: each read
	// reads them again first, and a file that no longer holds them was
	// rewritten in place, whatever its head and size say.
	tail  [tailSize]byte
	tailN int
}

// tailSize is how many bytes just before the read offset a follower keeps
// and checks: a rewrite in place shows there (a timestamp, a line of the
// new launch) when the head, a banner, is the same at every launch.
const tailSize = 64

// errNoIdentity says that the platform does not tell which file a path
// names (a device and an inode, or Windows' volume and file index), which
// rotation detection and resuming need.
var errNoIdentity = errors.New("no file identity (device and inode): this platform is not supported")

// newFile reads the identity and head of fh, opened by path (with
// openShared, so that the game can still rotate it).
func newFile(fh *os.File, path string) (*file, error) {
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	dev, ino, err := handleID(fh, fi)
	if err != nil {
		return nil, err
	}
	pathJSON, err := json.Marshal(path)
	if err != nil {
		return nil, err
	}
	cur := &file{f: fh, path: path, pathJSON: pathJSON, dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime()}
	if err := cur.readHead(); err != nil {
		return nil, err
	}
	return cur, nil
}

// readHead reads the file's first up to headSize bytes and sets its ID.
func (c *file) readHead() error {
	head := make([]byte, headSize)
	n, err := c.f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return err
	}
	c.head = head[:n]
	c.id = fileID(c.dev, c.ino, c.head)
	return nil
}

// keepTail makes b, the bytes just read up to c.read, the end of the tail.
func (c *file) keepTail(b []byte) {
	if len(b) >= tailSize {
		c.tailN = copy(c.tail[:], b[len(b)-tailSize:])
		return
	}
	keep := min(c.tailN, tailSize-len(b))
	copy(c.tail[:], c.tail[c.tailN-keep:c.tailN])
	c.tailN = keep + copy(c.tail[keep:], b)
}

// loadTail reads the tail before c.read from the file (a follower that
// resumes at c.read); none when the file is shorter.
func (c *file) loadTail() error {
	n := int(min(c.read, tailSize))
	k, err := c.f.ReadAt(c.tail[:n], c.read-int64(n))
	if k < n {
		c.tailN = 0
		if err == io.EOF {
			err = nil // truncated: the next pass sees it
		}
		return err
	}
	c.tailN = n
	return nil
}

// appendTailSum appends the fingerprint of the tail, "LEN:HASH" in hex.
func (c *file) appendTailSum(out []byte) []byte {
	h := fnv.New64a()
	h.Write(c.tail[:c.tailN])
	out = strconv.AppendUint(out, uint64(c.tailN), 16)
	out = append(out, ':')
	return strconv.AppendUint(out, h.Sum64(), 16)
}

// holdsTail reports whether the file holds, just before end, the bytes
// that sum (appendTailSum) fingerprints: false when it was rewritten or is
// shorter than end. An empty or malformed sum (a position stored before
// sums were) holds.
func (c *file) holdsTail(end int64, sum string) (bool, error) {
	ls, hs, ok := strings.Cut(sum, ":")
	n, err1 := strconv.ParseUint(ls, 16, 8)
	want, err2 := strconv.ParseUint(hs, 16, 64)
	if !ok || err1 != nil || err2 != nil || n > tailSize || int64(n) > end {
		return true, nil
	}
	var b [tailSize]byte
	k, err := c.f.ReadAt(b[:n], end-int64(n))
	if k < int(n) {
		if err == io.EOF {
			err = nil
		}
		return false, err
	}
	h := fnv.New64a()
	h.Write(b[:n])
	return h.Sum64() == want, nil
}

// fileID names a file by device, inode and its first bytes:
// "DEV:INO:LEN:HASH", numbers in hex.
func fileID(dev, ino uint64, head []byte) string {
	h := fnv.New64a()
	h.Write(head)
	return strconv.FormatUint(dev, 16) + ":" + strconv.FormatUint(ino, 16) + ":" +
		strconv.FormatUint(uint64(len(head)), 16) + ":" + strconv.FormatUint(h.Sum64(), 16)
}

func parseFileID(id string) (dev, ino uint64, n int, sum uint64, ok bool) {
	parts := strings.Split(id, ":")
	if len(parts) != 4 {
		return 0, 0, 0, 0, false
	}
	var v [4]uint64
	for i, p := range parts {
		x, err := strconv.ParseUint(p, 16, 64)
		if err != nil {
			return 0, 0, 0, 0, false
		}
		v[i] = x
	}
	if v[2] > headSize {
		return 0, 0, 0, 0, false
	}
	return v[0], v[1], int(v[2]), v[3], true
}

// is reports whether the file is the one id names: the same device and
// inode, beginning with the same bytes.
func (c *file) is(id string) bool {
	dev, ino, n, sum, ok := parseFileID(id)
	if !ok || dev != c.dev || ino != c.ino || n > len(c.head) {
		return false
	}
	h := fnv.New64a()
	h.Write(c.head[:n])
	return h.Sum64() == sum
}

// sameNode reports whether the file has the device and inode id names,
// whatever it begins with now: the same file, rewritten in place (a game's
// log opened with mode "w" at each launch, its first line timestamped).
func (c *file) sameNode(id string) bool {
	dev, ino, _, _, ok := parseFileID(id)
	return ok && dev == c.dev && ino == c.ino
}
