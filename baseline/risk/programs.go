package risk

import (
	"path"
	"regexp"
	"strings"
)

// OfProgram says why running prog deserves a reviewer's eye: shells,
// downloaders and compilers. It goes by the program's file name, with a
// version suffix taken off ("bash5", "gcc-14", "go1.22") and, for
// toolchains, a target prefix too ("x86_64-linux-gnu-gcc-14"). An
// interpreter (python3.13, node) is no risk by itself: it runs the agent.
func OfProgram(prog string) (Class, Level) {
	name := programVersion.ReplaceAllString(path.Base(prog), "")
	switch {
	case programShells[name]:
		return Shell, High
	case programDownloaders[name]:
		return Downloader, High
	case programCompilers[name] || programCompilers[crossTool(name)]:
		return Compiler, Medium
	}
	return None, NoLevel
}

// ProgramReason is the one-line reason a program is risky, "" when it is
// not (Reason's counterpart for programs).
func ProgramReason(prog string) string {
	r, _ := OfProgram(prog)
	return r.Reason()
}

// programVersion is a version at the end of a program's name: "5" of
// bash5, "-14" of gcc-14, "-5.9" of zsh-5.9.
var programVersion = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)*$`)

// crossTool is the tool of a cross toolchain's program, "gcc" of
// "aarch64-linux-gnu-gcc", or "" when name does not start with a target.
func crossTool(name string) string {
	if !crossTarget.MatchString(name) {
		return ""
	}
	return name[strings.LastIndexByte(name, '-')+1:]
}

// crossTarget is a GNU target triplet (arch-vendor-os or arch-os-abi) and
// the dash before the tool.
var crossTarget = regexp.MustCompile(`^(x86_64|i[3-6]86|aarch64(_be)?|arm[a-z0-9]*|riscv(32|64)|mips[a-z0-9]*|powerpc[a-z0-9]*|ppc[a-z0-9]*|s390x?|sparc[a-z0-9]*|loongarch64|m68k|avr|xtensa)(-[a-z0-9_.]+){1,3}-[^-]+$`)

var programShells = map[string]bool{
	"sh": true, "bash": true, "rbash": true, "dash": true, "ash": true, "zsh": true, "ksh": true, "mksh": true,
	"oksh": true, "loksh": true, "yash": true, "posh": true, "fish": true, "csh": true, "tcsh": true,
	"pwsh": true, "nu": true, "elvish": true, "xonsh": true, "busybox": true, "toybox": true,
}

var programDownloaders = map[string]bool{
	"curl": true, "wget": true, "wget2": true, "aria2c": true, "axel": true, "lftp": true, "ftp": true, "tftp": true,
	"nc": true, "ncat": true, "netcat": true, "nc.openbsd": true, "nc.traditional": true, "socat": true, "telnet": true,
	"ssh": true, "scp": true, "sftp": true, "rsync": true, "rclone": true,
}

var programCompilers = map[string]bool{
	"cc": true, "gcc": true, "g++": true, "c++": true, "clang": true, "clang++": true, "tcc": true,
	"cc1": true, "cc1plus": true, "collect2": true, "gccgo": true, "gfortran": true,
	"as": true, "nasm": true, "yasm": true, "ld": true, "ld.bfd": true, "ld.gold": true, "ld.lld": true, "lld": true, "mold": true,
	"go": true, "rustc": true, "zig": true, "javac": true,
}
