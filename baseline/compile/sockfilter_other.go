//go:build !linux

package compile

// SockFilter is one instruction of a filter program, laid out as Linux's
// struct sock_filter; elsewhere no filter is compiled.
type SockFilter struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}
