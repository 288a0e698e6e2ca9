// The floor of a Go program's start-up, for the CLI start-up table: the
// runtime's own set-up and nothing else (bench builds it with go build).
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
