module github.com/sysgate/sysgate

// The oldest Go that builds sysgate: internal/kernel uses unix.Mmsghdr,
// first in golang.org/x/sys v0.49.0, which itself requires go 1.26.0 (go
// get go@1.24.0 downgrades x/sys to v0.41.0, where it is undefined).
go 1.26.0

// The Go the suites' baselines were recorded with (a Go agent's runtime
// shows up in them): this repository's workflows install it through
// setup-go's go-version-file, and the go command switches to it here.
toolchain go1.26.8

require (
	github.com/elastic/go-libaudit/v2 v2.6.2
	github.com/miekg/dns v1.1.73
	github.com/moby/profiles/seccomp v0.3.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/onsi/ginkgo/v2 v2.34.0
	github.com/onsi/gomega v1.44.0
	github.com/opencontainers/runtime-spec v1.3.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/seccomp/libseccomp-golang v0.11.1
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/mod v0.41.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/Masterminds/semver/v3 v3.4.0 // indirect
	github.com/elastic/go-licenser v0.4.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-task/slim-sprig/v3 v3.0.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/pprof v0.0.0-20260402051712-545e8a4df936 // indirect
	github.com/kballard/go-shellquote v0.0.0-20180428030007-95032a82bc51 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)

// The Ginkgo CLI is pinned with the tool directive (Go 1.24+), not a
// tools.go file with a blank import: go.mod names it as a tool, go mod tidy
// keeps it, and no build-tagged package is needed. The Makefile and
// scripts/ still run it as `go run github.com/onsi/ginkgo/v2/ginkgo`, which
// resolves to this same version either way: should the go directive ever
// have to go below 1.24 (the tool directive needs go >= 1.24), a tools.go
// with `import _ "github.com/onsi/ginkgo/v2/ginkgo"` replaces this line and
// nothing else changes. actionlint is run as `go run ...@version` by
// ci/lint_test.go, deliberately outside go.mod.
tool github.com/onsi/ginkgo/v2/ginkgo
