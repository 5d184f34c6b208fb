# Turns a text file into a C function returning it (used for the built-in
# model).  cmake -DIN=file -DOUT=file.c -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," arr "${hex}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n#include \"classify/model.h\"\n\nstatic const unsigned char text[] = {${arr} 0x00};\n\nconst char *wt_model_builtin_text(void)\n{\n    return (const char *)text;\n}\n")
