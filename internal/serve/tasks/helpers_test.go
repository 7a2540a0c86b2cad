package tasks

import "errors"

func errorIs(err, target error) bool { return err != nil && errors.Is(err, target) }
