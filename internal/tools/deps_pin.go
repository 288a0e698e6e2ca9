//go:build tools

package tools

import (
	_ "github.com/elastic/go-libaudit/v2"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/rhysd/actionlint"
	_ "github.com/seccomp/libseccomp-golang"
	_ "golang.org/x/net/bpf"
	_ "golang.org/x/sys/unix"
	_ "gopkg.in/yaml.v3"
)
