package baseline

import "github.com/sysgate/sysgate/internal/testutil"

var writeFile = testutil.WriteFile
