//go:build unix

package runs

import (
	"fmt"
	"os"
	"syscall"
)

// fileStamp identifies the content of the file at path as the file system sees it: device,
// inode, size, modification and change times. Any write changes the change time, which no
// tool can set back, so an equal stamp means the file was not written in between.
func fileStamp(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%d %d %d %d.%09d %d.%09d", st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), true
}
