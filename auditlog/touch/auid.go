package touch

import (
	"crypto/rand"
	"encoding/binary"
)

// AUIDs are drawn from [auidLow, auidHigh]: far above any account a
// distribution or directory service hands out (useradd stops at 60000,
// systemd's dynamic and container ranges end below 0x7ffeffff), and below
// 4294967295, which the kernel reserves for "unset".
const (
	auidLow  = 0x7f000000
	auidHigh = 0xfffffff0
)

// NewAUID returns a random login uid for one run. Two runs that draw the
// same value only share rules (each sees the other's records on the
// stream); events are attributed by audit session id, which the kernel
// allocates afresh for every loginuid write, so a collision costs a few
// records to filter, never a wrong attribution.
func NewAUID() uint32 {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux 3.17+ (getrandom)
	}
	return auidLow + binary.LittleEndian.Uint32(b[:])%(auidHigh-auidLow+1)
}
