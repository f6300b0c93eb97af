package main

import "errors"

func runPhash(args []string) error { return errors.New("not implemented yet") }
