// Package widget holds the browser widget's scripts (embed.js, the
// publisher's one script tag, and worker.js, the Web Worker it starts),
// embedded so that the origin serves the exact files of its build. They
// are plain JavaScript with no build step and no dependencies;
// docs/widget.md is their contract.
package widget

import (
	"embed"
	"io/fs"
)

//go:embed embed.js worker.js
var files embed.FS

// FS returns the widget's scripts, by file name.
func FS() fs.FS { return files }
