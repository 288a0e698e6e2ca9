package baseline

import "github.com/sysgate/sysgate/baseline/risk"

// The network classes (risk.CloudMetadata, ...) and their reasons are
// package risk's; deciding which applies needs the network patterns here.

// riskyPorts are ports of protocols that move data out or log in
// elsewhere: SMTP (25, 465, 587), SSH (22), Telnet (23), IRC (6667, 6697).
var riskyPorts = map[int]string{22: "ssh", 23: "telnet", 25: "smtp", 465: "smtp", 587: "smtp", 6667: "irc", 6697: "irc"}

// containerSockets are the container engines' API sockets.
var containerSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"}

// NetworkRisk says why a network entry deserves a reviewer's eye, with
// the class's one-line reason; risk.None when it does not. Every class is
// high: each is a way out of the sandbox or to the host's credentials.
// The first that applies is named.
func NetworkRisk(e NetworkEntry) (risk.Class, risk.Level, string) {
	r := networkRiskClass(e)
	if !r.Risky() {
		return risk.None, risk.NoLevel, ""
	}
	return r, risk.High, r.Reason()
}

func networkRiskClass(e NetworkEntry) risk.Class {
	p, err := compileNetPattern(e.Pattern, e.Op)
	if err != nil {
		return risk.None
	}
	switch {
	case p.unix != "":
		for _, s := range containerSockets {
			if p.matches(Destination{Unix: s}, []glob{compileGlob(p.unix)}) {
				return risk.ContainerSocket
			}
		}
	case p.class == ClassMetadata || (p.addr.IsValid() && AddrClass(p.addr) == ClassMetadata):
		return risk.CloudMetadata
	case (e.Op == NetBind || e.Op == NetListen) && !p.loopbackOnly():
		return risk.ExposedListener
	case e.Op == NetConnect || e.Op == NetSend:
		// "*" on a host other than loopback covers these ports as well.
		// A local mail relay or sshd passes data on as a remote one does.
		if riskyPorts[p.port] != "" {
			return risk.RemotePort
		}
		if p.loopbackOnly() {
			break
		}
		// DNS (53) and DNS over TLS (853) to a resolver of the agent's
		// own choosing.
		if p.port == 53 || p.port == 853 {
			return risk.OwnResolver
		}
		// "*" beyond loopback covers the ports above as well.
		if p.port == portAny {
			return risk.RemotePort
		}
	}
	// A destination a shell or downloader reaches is one the agent can
	// send anything to through it.
	if e.By != "" {
		if r, _ := risk.OfProgram(e.By); r == risk.Shell || r == risk.Downloader {
			return r
		}
	}
	return risk.None
}
