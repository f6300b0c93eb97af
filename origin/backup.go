package main

import (
	"fmt"
	"io"
)

func backupCmd(args []string, getenv func(string) (string, bool), out io.Writer) error {
	return fmt.Errorf("backup: not implemented")
}

func restoreCmd(args []string, getenv func(string) (string, bool), out io.Writer) error {
	return fmt.Errorf("restore: not implemented")
}
