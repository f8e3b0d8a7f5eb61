// Package filelock takes an exclusive advisory lock on an open file: flock on
// unix, a lock file beside it (NAME.lock, created exclusively) elsewhere. It
// is the one file lock of the module: analyze's history file waits for the
// lock (Lock), the records writer refuses a file another writer holds
// (TryLock).
//
// The lock is advisory: it excludes only the processes that take it too.
// On unix it goes away with the file's last descriptor, so a killed process
// leaves no stale lock; the lock file used elsewhere stays when its holder is
// killed, and the error says to remove it.
package filelock

import "errors"

// ErrLocked is returned by TryLock when another holder has the lock.
var ErrLocked = errors.New("locked by another process")
