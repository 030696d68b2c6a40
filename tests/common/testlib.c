#include "testlib.h"

int test_failures;
int test_checks;
