package touch

import (
	"bytes"
	"errors"
)

// errHeader is a record whose "audit(SEC.MSEC:SERIAL)" header cannot be
// read: it belongs to no event.
var errHeader = errors.New("invalid audit message header")

// errNoContent is a record with nothing after its header.
var errNoContent = errors.New("message has no data content")

// header reads a record's serial as auparse.Parse does (surrounding
// space trimmed, the first '(' opens the stamp, the serial fits 32
// bits), and returns the text its fields are read from. That text
// starts where auparse starts it, a few bytes into the record (auparse
// takes an offset relative to the stamp's end as absolute; the stamp
// has no '=', so only fields are found either way). body is nil, with
// no error, for a record auparse would refuse to read fields from.
func header(data []byte) (serial uint32, body []byte, err error) {
	line := bytes.TrimSpace(data)
	start := bytes.IndexByte(line, '(')
	if start < 0 {
		return 0, nil, errHeader
	}
	dot := bytes.IndexByte(line[start:], '.')
	if dot < 0 {
		return 0, nil, errHeader
	}
	dot += start
	sep := bytes.IndexByte(line[dot:], ':')
	if sep < 0 {
		return 0, nil, errHeader
	}
	sep += dot
	end := bytes.IndexByte(line[sep:], ')')
	if end < 0 {
		return 0, nil, errHeader
	}
	end += sep
	if _, err := parseInt(line[start+1:dot], 10, 64); err != nil {
		return 0, nil, errHeader
	}
	if _, err := parseInt(line[dot+1:sep], 10, 64); err != nil {
		return 0, nil, errHeader
	}
	seq, err := parseUint(line[sep+1:end], 10, 32)
	if err != nil {
		return 0, nil, errHeader
	}
	offset := bytes.IndexAny(line[end:], ": ")
	if offset < 0 {
		return uint32(seq), nil, nil
	}
	return uint32(seq), line[offset:], nil
}
