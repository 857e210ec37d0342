package publish

import (
	"errors"
	"fmt"
)

// FlagHint adds to a refusal of Publish the upgraph publish flag that
// overrides it: the library states the facts, the remedies are flags.
// Any other error is returned as it is.
func FlagHint(err error) error {
	switch {
	case errors.Is(err, ErrShrink):
		return fmt.Errorf("%w (--force publishes anyway; --shrink-threshold sets the fraction)", err)
	case errors.Is(err, ErrUnreadableIndex):
		return fmt.Errorf("%w (--force publishes over it as if nothing were published)", err)
	case errors.Is(err, ErrTooManyDeletes):
		return fmt.Errorf("%w (raise --max-deletes, -1 for no limit)", err)
	}
	return err
}
