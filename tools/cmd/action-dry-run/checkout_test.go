package main

// checkoutDir is the sysgate checkout whose action.yml, scripts/action.sh
// and sources the dry runs use: this package sits in the tools module at
// tools/cmd/action-dry-run, three levels below it.
const checkoutDir = "../../.."
