// stopparent stops its parent as its first act after execve: without a
// PID namespace that is the run's init (issue 32, item 4), which may not
// have reported the agent yet. Static, so no loader runs first.
#include <signal.h>
#include <unistd.h>

int main(void) {
	return kill(getppid(), SIGSTOP) == 0 ? 0 : 1;
}
