# apps/climate/local.mk - included by the top-level Makefile.am (non-recursive
# build): add to bin_PROGRAMS, check_PROGRAMS, TESTS, EXTRA_DIST with +=.
