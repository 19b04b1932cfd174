/* The fricon executable. */
#include "cli.h"

int main(int argc, char **argv) { return fricon_main(argc, argv); }
