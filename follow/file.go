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
	head     []byte // its first up to headSize bytes
	id       string // fileID(dev, ino, head)
	read     int64  // the offset of the next read
	partial  []byte // the bytes of an unterminated last line, from read-len(partial)
	stored   int64  // the end of the last entry appended
	size     int64  // its size when last looked at
	mtime    time.Time
}

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
