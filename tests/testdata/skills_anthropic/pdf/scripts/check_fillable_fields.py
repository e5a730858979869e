import sys
print('fillable fields of', sys.argv[1])
