package risk

// Network classes (baseline.NetworkRisk decides them from a network
// entry; each is high). Raw and packet sockets are not among them: they
// are socket(AF_PACKET) and socket(SOCK_RAW), argument classes of the
// syscall table, seen before any address is.
const (
	CloudMetadata   Class = "cloud-metadata"   // the instance's credential service
	ExposedListener Class = "exposed-listener" // a socket others on the network can reach
	RemotePort      Class = "remote-port"      // SMTP, SSH, IRC, Telnet: ways out that are not HTTPS
	ContainerSocket Class = "container-socket" // Docker's or containerd's API: root on the host
	OwnResolver     Class = "own-resolver"     // DNS past the run's recording forwarder
	DNSTunnel       Class = "dns-tunnel"       // lookups in a pattern of tunnelling (many names under one domain)
)

var networkReasons = map[Class]string{
	CloudMetadata:   "the cloud's instance-metadata service hands out the machine's credentials",
	ExposedListener: "a socket bound beyond loopback lets others on the network into the agent",
	RemotePort:      "mail, remote shells and chat carry data out without a web proxy in the way",
	ContainerSocket: "the container engine's API starts privileged containers: root on the host",
	OwnResolver:     "DNS sent past the run's forwarder is neither recorded nor gated by name: a channel for data in queries",
	DNSTunnel:       "many distinct names under one domain carry data out in the queries themselves",
}
