package rundata

import "fmt"

// InputError is an error in what was asked for or in what was read: a
// selection that cannot hold, an input that cannot be opened, a corrupt line, a
// metric not in the inputs. Commands exit with their usage code for it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Errorf makes an InputError.
func Errorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }
