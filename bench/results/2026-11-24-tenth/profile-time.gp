# gnuplot script written by fricon profile; run: gnuplot profile-time.gp
set title "Performance profile: solve time\n19 problems, solved = converged with SPEC residual <= 1e-08" noenhanced
set xlabel "tau (time within tau x the best solver's)" noenhanced
set ylabel "fraction of problems solved"
set logscale x
set xrange [1:100000]
set yrange [0:1.02]
set format x "%g"
set grid xtics ytics mxtics
set mxtics 10
set key outside right top vertical Left reverse noenhanced spacing 1.1
set border lw 1.2
set terminal svg size 1000,600 dynamic font 'DejaVu Sans,13' background '#ffffff'
set output 'profile-time.svg'
plot 'profile-time.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-time.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-time.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'psor', \
     'profile-time.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-ac', \
     'profile-time.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'nsn-jm', \
     'profile-time.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'nsn-fb', \
     'profile-time.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'nsn-nm', \
     'profile-time.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'nsn-hybrid', \
     'profile-time.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'ipm', \
     'profile-time.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'ipm-mdp', \
     'profile-time.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'gipm', \
     'profile-time.dat' index 11 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'admm', \
     'profile-time.dat' index 12 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'gadmm', \
     'profile-time.dat' index 13 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'fpp', \
     'profile-time.dat' index 14 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7b4173' title 'eg', \
     'profile-time.dat' index 15 using 1:2 with steps lw 2.5 dt 1 lc rgb '#3182bd' title 'vi-fpp', \
     'profile-time.dat' index 16 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'vi-eg', \
     'profile-time.dat' index 17 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'hp', \
     'profile-time.dat' index 18 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'prox', \
     'profile-time.dat' index 19 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'tfp', \
     'profile-time.dat' index 20 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'dsfp', \
     'profile-time.dat' index 21 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'pfp', \
     'profile-time.dat' index 22 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'aclm', \
     'profile-time.dat' index 23 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'apgd', \
     'profile-time.dat' index 24 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'apgd-ccp', \
     'profile-time.dat' index 25 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'nsgs-v', \
     'profile-time.dat' index 26 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'stick', \
     'profile-time.dat' index 27 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'lemke', \
     'profile-time.dat' index 28 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'enum', \
     'profile-time.dat' index 29 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'cpg', \
     'profile-time.dat' index 30 using 1:2 with steps lw 2 dt 2 lc rgb '#ff7f0e' title 'siconos-NSGS', \
     'profile-time.dat' index 31 using 1:2 with steps lw 2 dt 2 lc rgb '#9467bd' title 'siconos-NSGSV', \
     'profile-time.dat' index 32 using 1:2 with steps lw 2 dt 2 lc rgb '#8c564b' title 'siconos-PROX', \
     'profile-time.dat' index 33 using 1:2 with steps lw 2 dt 2 lc rgb '#e377c2' title 'siconos-TFP', \
     'profile-time.dat' index 34 using 1:2 with steps lw 2 dt 2 lc rgb '#7f7f7f' title 'siconos-NSN-AC', \
     'profile-time.dat' index 35 using 1:2 with steps lw 2 dt 2 lc rgb '#bcbd22' title 'siconos-NSN-AC-TEST', \
     'profile-time.dat' index 36 using 1:2 with steps lw 2 dt 2 lc rgb '#17becf' title 'siconos-NSN-FB', \
     'profile-time.dat' index 37 using 1:2 with steps lw 2 dt 2 lc rgb '#393b79' title 'siconos-NSN-NM', \
     'profile-time.dat' index 38 using 1:2 with steps lw 2 dt 2 lc rgb '#637939' title 'siconos-DSFP', \
     'profile-time.dat' index 39 using 1:2 with steps lw 2 dt 2 lc rgb '#8c6d31' title 'siconos-VI-FPP', \
     'profile-time.dat' index 40 using 1:2 with steps lw 2 dt 2 lc rgb '#843c39' title 'siconos-VI-EG', \
     'profile-time.dat' index 41 using 1:2 with steps lw 2 dt 2 lc rgb '#7b4173' title 'siconos-HP', \
     'profile-time.dat' index 42 using 1:2 with steps lw 2 dt 2 lc rgb '#3182bd' title 'siconos-FPP', \
     'profile-time.dat' index 43 using 1:2 with steps lw 2 dt 2 lc rgb '#1f77b4' title 'siconos-EG', \
     'profile-time.dat' index 44 using 1:2 with steps lw 2 dt 2 lc rgb '#d62728' title 'siconos-ACLMFP', \
     'profile-time.dat' index 45 using 1:2 with steps lw 2 dt 2 lc rgb '#2ca02c' title 'siconos-SOCLCP', \
     'profile-time.dat' index 46 using 1:2 with steps lw 2 dt 2 lc rgb '#ff7f0e' title 'siconos-PFP', \
     'profile-time.dat' index 47 using 1:2 with steps lw 2 dt 2 lc rgb '#9467bd' title 'siconos-ADMM', \
     'profile-time.dat' index 48 using 1:2 with steps lw 2 dt 2 lc rgb '#8c564b' title 'siconos-CPG', \
     'profile-time.dat' index 49 using 1:2 with steps lw 2 dt 2 lc rgb '#e377c2' title 'siconos-LEMKE', \
     'profile-time.dat' index 50 using 1:2 with steps lw 2 dt 2 lc rgb '#7f7f7f' title 'siconos-ENUM'
unset output
set terminal pngcairo size 1200,720 font 'DejaVu Sans,12' background '#ffffff'
set output 'profile-time.png'
plot 'profile-time.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-time.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-time.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'psor', \
     'profile-time.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-ac', \
     'profile-time.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'nsn-jm', \
     'profile-time.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'nsn-fb', \
     'profile-time.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'nsn-nm', \
     'profile-time.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'nsn-hybrid', \
     'profile-time.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'ipm', \
     'profile-time.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'ipm-mdp', \
     'profile-time.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'gipm', \
     'profile-time.dat' index 11 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'admm', \
     'profile-time.dat' index 12 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'gadmm', \
     'profile-time.dat' index 13 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'fpp', \
     'profile-time.dat' index 14 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7b4173' title 'eg', \
     'profile-time.dat' index 15 using 1:2 with steps lw 2.5 dt 1 lc rgb '#3182bd' title 'vi-fpp', \
     'profile-time.dat' index 16 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'vi-eg', \
     'profile-time.dat' index 17 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'hp', \
     'profile-time.dat' index 18 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'prox', \
     'profile-time.dat' index 19 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'tfp', \
     'profile-time.dat' index 20 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'dsfp', \
     'profile-time.dat' index 21 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'pfp', \
     'profile-time.dat' index 22 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'aclm', \
     'profile-time.dat' index 23 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'apgd', \
     'profile-time.dat' index 24 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'apgd-ccp', \
     'profile-time.dat' index 25 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'nsgs-v', \
     'profile-time.dat' index 26 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'stick', \
     'profile-time.dat' index 27 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'lemke', \
     'profile-time.dat' index 28 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'enum', \
     'profile-time.dat' index 29 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'cpg', \
     'profile-time.dat' index 30 using 1:2 with steps lw 2 dt 2 lc rgb '#ff7f0e' title 'siconos-NSGS', \
     'profile-time.dat' index 31 using 1:2 with steps lw 2 dt 2 lc rgb '#9467bd' title 'siconos-NSGSV', \
     'profile-time.dat' index 32 using 1:2 with steps lw 2 dt 2 lc rgb '#8c564b' title 'siconos-PROX', \
     'profile-time.dat' index 33 using 1:2 with steps lw 2 dt 2 lc rgb '#e377c2' title 'siconos-TFP', \
     'profile-time.dat' index 34 using 1:2 with steps lw 2 dt 2 lc rgb '#7f7f7f' title 'siconos-NSN-AC', \
     'profile-time.dat' index 35 using 1:2 with steps lw 2 dt 2 lc rgb '#bcbd22' title 'siconos-NSN-AC-TEST', \
     'profile-time.dat' index 36 using 1:2 with steps lw 2 dt 2 lc rgb '#17becf' title 'siconos-NSN-FB', \
     'profile-time.dat' index 37 using 1:2 with steps lw 2 dt 2 lc rgb '#393b79' title 'siconos-NSN-NM', \
     'profile-time.dat' index 38 using 1:2 with steps lw 2 dt 2 lc rgb '#637939' title 'siconos-DSFP', \
     'profile-time.dat' index 39 using 1:2 with steps lw 2 dt 2 lc rgb '#8c6d31' title 'siconos-VI-FPP', \
     'profile-time.dat' index 40 using 1:2 with steps lw 2 dt 2 lc rgb '#843c39' title 'siconos-VI-EG', \
     'profile-time.dat' index 41 using 1:2 with steps lw 2 dt 2 lc rgb '#7b4173' title 'siconos-HP', \
     'profile-time.dat' index 42 using 1:2 with steps lw 2 dt 2 lc rgb '#3182bd' title 'siconos-FPP', \
     'profile-time.dat' index 43 using 1:2 with steps lw 2 dt 2 lc rgb '#1f77b4' title 'siconos-EG', \
     'profile-time.dat' index 44 using 1:2 with steps lw 2 dt 2 lc rgb '#d62728' title 'siconos-ACLMFP', \
     'profile-time.dat' index 45 using 1:2 with steps lw 2 dt 2 lc rgb '#2ca02c' title 'siconos-SOCLCP', \
     'profile-time.dat' index 46 using 1:2 with steps lw 2 dt 2 lc rgb '#ff7f0e' title 'siconos-PFP', \
     'profile-time.dat' index 47 using 1:2 with steps lw 2 dt 2 lc rgb '#9467bd' title 'siconos-ADMM', \
     'profile-time.dat' index 48 using 1:2 with steps lw 2 dt 2 lc rgb '#8c564b' title 'siconos-CPG', \
     'profile-time.dat' index 49 using 1:2 with steps lw 2 dt 2 lc rgb '#e377c2' title 'siconos-LEMKE', \
     'profile-time.dat' index 50 using 1:2 with steps lw 2 dt 2 lc rgb '#7f7f7f' title 'siconos-ENUM'
unset output
