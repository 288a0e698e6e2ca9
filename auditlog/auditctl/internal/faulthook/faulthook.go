// Package faulthook hands auditctl's fault knobs to auditctltest without
// putting them in auditctl's API: auditctl fills these variables when it
// is initialised, and only packages under auditlog/auditctl can import
// this one.
package faulthook

var (
	ExclusiveKernel  func() (release func() error, err error)
	SetBacklog       func(limit, wait uint32) error
	SetEnabled       func(on bool) error
	SetActionsLogged func(v string) error
	// Stage, when set (auditctltest.OnStage), is called at each
	// auditctl.Stage a process reaches.
	Stage func(stage string)
)
