package baseline

// Network risk classes (NetworkRisk). Raw and packet sockets are not
// among them: they are socket(AF_PACKET) and socket(SOCK_RAW), argument
// classes of the syscall table (risk.go), seen before any address is.
const (
	RiskMetadata        RiskClass = "cloud-metadata"   // the instance's credential service
	RiskExposedListener RiskClass = "exposed-listener" // a socket others on the network can reach
	RiskRemotePort      RiskClass = "remote-port"      // SMTP, SSH, IRC, Telnet: ways out that are not HTTPS
	RiskContainerSocket RiskClass = "container-socket" // Docker's or containerd's API: root on the host
	RiskOwnResolver     RiskClass = "own-resolver"     // DNS past the run's recording forwarder
)

var networkRiskReasons = map[RiskClass]string{
	RiskMetadata:        "the cloud's instance-metadata service hands out the machine's credentials",
	RiskExposedListener: "a socket bound beyond loopback lets others on the network into the agent",
	RiskRemotePort:      "mail, remote shells and chat carry data out without a web proxy in the way",
	RiskContainerSocket: "the container engine's API starts privileged containers: root on the host",
	RiskOwnResolver:     "DNS sent past the run's forwarder is neither recorded nor gated by name: a channel for data in queries",
}

// riskyPorts are ports of protocols that move data out or log in
// elsewhere: SMTP (25, 465, 587), SSH (22), Telnet (23), IRC (6667, 6697).
var riskyPorts = map[int]string{22: "ssh", 23: "telnet", 25: "smtp", 465: "smtp", 587: "smtp", 6667: "irc", 6697: "irc"}

// containerSockets are the container engines' API sockets.
var containerSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"}

// NetworkRisk says why a network entry deserves a reviewer's eye, with a
// one-line reason; RiskNone when it does not. Every class is high: each
// is a way out of the sandbox or to the host's credentials. The first
// that applies is named.
func NetworkRisk(e NetworkEntry) (RiskClass, RiskLevel, string) {
	r := networkRiskClass(e)
	if !r.Risky() {
		return RiskNone, LevelNone, ""
	}
	if why, ok := networkRiskReasons[r]; ok {
		return r, LevelHigh, why
	}
	return r, LevelHigh, classReasons[r]
}

func networkRiskClass(e NetworkEntry) RiskClass {
	p, err := compileNetPattern(e.Pattern, e.Op)
	if err != nil {
		return RiskNone
	}
	switch {
	case p.unix != "":
		for _, s := range containerSockets {
			if p.matches(Destination{Unix: s}, []glob{compileGlob(p.unix)}) {
				return RiskContainerSocket
			}
		}
	case p.class == ClassMetadata || (p.addr.IsValid() && AddrClass(p.addr) == ClassMetadata):
		return RiskMetadata
	case (e.Op == NetBind || e.Op == NetListen) && !p.loopbackOnly():
		return RiskExposedListener
	case e.Op == NetConnect || e.Op == NetSend:
		// "*" on a host other than loopback covers these ports as well.
		// A local mail relay or sshd passes data on as a remote one does.
		if riskyPorts[p.port] != "" {
			return RiskRemotePort
		}
		if p.loopbackOnly() {
			break
		}
		// DNS (53) and DNS over TLS (853) to a resolver of the agent's
		// own choosing.
		if p.port == 53 || p.port == 853 {
			return RiskOwnResolver
		}
		// "*" beyond loopback covers the ports above as well.
		if p.port == portAny {
			return RiskRemotePort
		}
	}
	// A destination a shell or downloader reaches is one the agent can
	// send anything to through it.
	if e.By != "" {
		if r, _ := ProgramRisk(e.By); r == RiskShell || r == RiskDownloader {
			return r
		}
	}
	return RiskNone
}
