// Package notify is the notify backend's room: the parts of a run that
// see the agent's calls through a seccomp listener (SECCOMP_RET_USER_NOTIF)
// rather than the kernel's audit records, and need no privilege. Today it
// holds the proxies that perform an agent's file and socket calls for it
// (fileproxy, netproxy: the kernel's copy of a path or address, never the
// agent's memory twice); the notifier that judges each call and the exec
// verification still live in harness (issue 44, step 3).
package notify
