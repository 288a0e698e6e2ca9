package actionrun

// checkoutDir is the sysgate checkout whose action.yml the tests read: this
// package sits in the tools module at tools/internal/actionrun, three levels
// below it.
const checkoutDir = "../../.."
