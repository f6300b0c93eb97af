package main

import "errors"

func runRobustness(args []string) error { return errors.New("not implemented yet") }
