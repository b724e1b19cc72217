module rxt.dev/rxt

go 1.19
