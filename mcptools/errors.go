package mcptools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcplogd/mcplogd/oplog"
)

// toolError turns err into the error a tool returns, which the SDK sends
// as a result with isError: true: the code's title (oplog.ErrorTitle),
// then the message ("invalid argument: level: unknown level ..."). Internal
// details are not shown; a cancelled call says so.
func toolError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cancelled: %v", err)
	}
	if code := oplog.ErrorCode(err); code != oplog.EINTERNAL {
		if title := oplog.ErrorTitle(code); title != "" {
			return fmt.Errorf("%s: %s", title, oplog.ErrorMessage(err))
		}
	}
	return errors.New("internal error: see the server's log")
}
