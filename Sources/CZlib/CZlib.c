// A target needs one source file; CZlib is its headers.
