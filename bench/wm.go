package main

import "errors"

func runWM(args []string) error { return errors.New("not implemented yet") }
