package containerprofile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/profiles/seccomp"
	"golang.org/x/mod/modfile"

	profilegolden "github.com/sysgate/sysgate/internal/golden"
)

// moby's DefaultProfile is built for Linux only: so is this file.

// TestDockerDefaultFixture writes Docker's default profile from the module
// pinned in go.mod (with -update), and fails when a module update changes
// it without the fixture, or the NOTICE naming the version, following.
func TestDockerDefaultFixture(t *testing.T) {
	data, err := json.MarshalIndent(seccomp.DefaultProfile(), "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	profilegolden.Check(t, filepath.Join(profilesDir, "docker-default.json"), append(data, '\n'))
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	version := ""
	for _, r := range mod.Require {
		if r.Mod.Path == "github.com/moby/profiles/seccomp" {
			version = r.Mod.Version
		}
	}
	notice, err := os.ReadFile(filepath.Join(profilesDir, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/moby/profiles/seccomp " + version + "\n", "SPDX-FileCopyrightText: Copyright The Moby Authors", "SPDX-License-Identifier: Apache-2.0"} {
		if version == "" || !strings.Contains(string(notice), want) {
			t.Errorf("NOTICE lacks %q (module version %q)", want, version)
		}
	}
	if license, err := os.ReadFile(filepath.Join(profilesDir, "LICENSE")); err != nil || !strings.Contains(string(license), "Apache License\n                           Version 2.0") {
		t.Errorf("LICENSE is not the Apache-2.0 text: %v", err)
	}
}
