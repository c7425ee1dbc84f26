package follow

import (
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// shareAll lets other processes read, write, rename and delete a file that
// is open here.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// openShared opens the followed file at path for reading, sharing it for
// deletion too. os.Open shares it only for reading and writing, and while
// such a handle is open Windows refuses to rename or delete the file: the
// game could not rotate its log (Unity renames Player.log to Player-prev.log
// at start) for as long as it was followed.
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// handleID returns the volume serial number and file index of the open
// file fh: Windows' device and inode, which stay the same across a rename
// on the same volume.
func handleID(fh *os.File, _ fs.FileInfo) (dev, ino uint64, err error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(fh.Fd()), &info); err != nil {
		return 0, 0, fmt.Errorf("%s: %w: %w", fh.Name(), errNoIdentity, err)
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), nil
}

// infoID returns the volume serial number and file index of the file at
// path. Windows' os.Stat does not expose them, so it opens the file for
// its attributes only, sharing it in every way so that the game's writes,
// renames and deletes go on meanwhile.
func infoID(path string, _ fs.FileInfo) (dev, ino uint64, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, 0, fmt.Errorf("%s: %w: %w", path, errNoIdentity, err)
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), nil
}
