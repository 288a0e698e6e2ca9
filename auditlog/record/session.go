package record

import "bytes"

// Session reads the audit session id of a type-1326 record that
// DecodeSeccomp may have rejected, to tell whose it is. It trusts only
// the layout the kernel writes first (audit_log_task: "auid=%u uid=%u
// gid=%u ses=%u", before the LSM context, comm and exe), where nothing a
// process controls can appear; any other layout gives ok false, and the
// record may have been anyone's.
func Session(data []byte) (ses uint32, ok bool) {
	_, _, rest, err := Header(data)
	if err != nil {
		return 0, false
	}
	rest = bytes.TrimLeft(rest, " ")
	for _, key := range []string{"auid=", "uid=", "gid=", "ses="} {
		if !bytes.HasPrefix(rest, []byte(key)) {
			return 0, false
		}
		rest = rest[len(key):]
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		v, isNum := atou32(rest[:end])
		if !isNum {
			return 0, false
		}
		ses, rest = v, bytes.TrimPrefix(rest[end:], []byte(" "))
	}
	return ses, true
}
