package verdict

// ShimResolution says that the agent's command is a version manager's
// shim (pyenv's python3, nodenv's node, ...), and what sysgate started
// instead: the interpreter the manager itself names for the agent's
// environment and directory. A run through the shim would record the
// shim, the manager's scripts and the shell that runs them, none of
// which another machine has.
type ShimResolution struct {
	Manager string `json:"manager"`
	Shim    string `json:"shim"`
	// Interpreter is what the run started in the shim's place; "" when
	// the manager named none, and the run went through the shim.
	Interpreter string `json:"interpreter,omitempty"`
	// PathAdded is the directory put in front of the agent's PATH, as the
	// manager's exec does for a version it installed.
	PathAdded string `json:"path_added,omitempty"`
	// Problem says why the shim was kept (Interpreter "").
	Problem string `json:"problem,omitempty"`
}
