/* placeholder, replaced below */
#include "testlib.h"
int main(void) { return TEST_EXIT(); }
